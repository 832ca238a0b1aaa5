# adbench: time(derivative) / time(ADBench objective) for gmm
$tool0 << EOD
0 3.20248
1 2.45765
2 2.57747
3 7.48201
4 3.21185
5 2.43836
6 2.5943
EOD
$tool1 << EOD
0 3.20984
1 2.43828
2 2.47771
3 3.18269
4 3.06732
5 2.38839
6 2.52176
EOD
$tool2 << EOD
0 2.54012
1 3.93969
2 5.45294
3 19.0413
4 2.5088
5 3.83553
6 5.49468
EOD
$tool3 << EOD
0 4.38573
1 25.0478
2 37.466
4 6.31656
EOD
$tool4 << EOD
0 59.6657
1 3320.15
2 22867.2
3 438572
4 60.3359
5 3205.14
6 23120.7
EOD
set terminal pngcairo size 720,440 font ",10"
set output "/tmp/bench1/adbench-gmm.png"
set title "gmm: time(derivative) / time(ADBench's C objective)"
set logscale y
set ylabel "ratio (log scale)"
set xlabel "size"
set key outside right
set grid ytics
set offsets 0.3, 0.3, 0, 0
set bmargin 6
set xtics rotate by -30 ("d2 K5 n1000" 0, "d10 K25 n1000" 1, "d20 K50 n1000" 2, "d64 K100 n1000" 3, "d2 K5 n10000" 4, "d10 K25 n10000" 5, "d20 K50 n10000" 6)
plot $tool0 using 1:2 with linespoints pt 4 title "chad", $tool1 using 1:2 with linespoints pt 5 title "chad, subnormals flushed", $tool2 using 1:2 with linespoints pt 6 title "chad (port)", $tool3 using 1:2 with linespoints pt 7 title "ADOL-C", $tool4 using 1:2 with linespoints pt 8 title "finite differences"
