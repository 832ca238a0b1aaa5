# adbench: time(derivative) / time(ADBench objective) for gmm
$tool0 << EOD
0 4.31455
1 4.13615
2 5.0088
3 9.03431
4 4.33318
5 3.92097
6 5.11477
EOD
$tool1 << EOD
0 3.83607
1 4.99719
2 7.23788
3 14.2153
4 3.906
5 4.62293
6 7.18325
EOD
$tool2 << EOD
0 5.47815
1 20.3052
2 32.955
4 5.53084
EOD
$tool3 << EOD
0 59.2754
1 3376.82
2 22077.9
3 411433
4 57.8378
5 3216.98
6 23305.8
EOD
set terminal pngcairo size 720,440 font ",10"
set output "bench/adbench/charts/adbench-gmm.png"
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
