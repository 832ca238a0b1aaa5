# adbench: time(derivative) / time(ADBench objective) for gmm
$tool0 << EOD
0 2.18168
1 2.36953
2 3.46008
3 6.17172
4 3.09364
5 2.38166
6 2.60722
EOD
$tool1 << EOD
0 1.64923
1 3.59295
2 4.78641
3 11.6081
4 2.49545
5 3.62944
6 5.27465
EOD
$tool2 << EOD
0 8.25215
1 21.6651
2 33.3608
4 5.58686
EOD
$tool3 << EOD
0 36.4829
1 3584.44
2 21155.7
3 432470
4 59.8151
5 3320.63
6 23020.7
EOD
set terminal pngcairo size 720,440 font ",10"
set output "/tmp/ab6/adbench-gmm.png"
set title "gmm: time(derivative) / time(ADBench's C objective)"
set logscale y
set ylabel "ratio (log scale)"
set xlabel "size"
set key outside right
set grid ytics
set offsets 0.3, 0.3, 0, 0
set bmargin 6
set xtics rotate by -30 ("d2 K5 n1000" 0, "d10 K25 n1000" 1, "d20 K50 n1000" 2, "d64 K100 n1000" 3, "d2 K5 n10000" 4, "d10 K25 n10000" 5, "d20 K50 n10000" 6)
plot $tool0 using 1:2 with linespoints pt 4 title "chad", $tool1 using 1:2 with linespoints pt 5 title "chad (port)", $tool2 using 1:2 with linespoints pt 6 title "ADOL-C", $tool3 using 1:2 with linespoints pt 7 title "finite differences"
