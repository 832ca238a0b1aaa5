# adbench: time(derivative) / time(ADBench objective) for gmm
$tool0 << EOD
0 2.33456
1 2.19389
2 2.27541
3 2.73141
4 2.35695
5 1.97584
6 2.30146
EOD
$tool1 << EOD
0 2.37458
1 2.18741
2 2.27842
3 2.71321
4 2.34626
5 1.9711
6 2.31416
EOD
$tool2 << EOD
0 2.40737
1 3.46573
2 5.2189
3 11.1293
4 2.4163
5 3.13541
6 7.3481
EOD
$tool3 << EOD
0 5.56178
1 63.6272
2 103.364
4 5.57724
EOD
$tool4 << EOD
0 57.989
1 3251.19
2 23416
3 441327
4 58.7438
5 3300.84
6 26747.7
EOD
set terminal pngcairo size 720,440 font ",10"
set output "/tmp/run2/adbench-gmm.png"
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
