# adbench: time(derivative) / time(ADBench objective) for gmm
$tool0 << EOD
0 2.26967
1 2.06001
2 2.17025
3 2.99356
4 2.11447
5 2.10523
6 2.15958
EOD
$tool1 << EOD
0 2.21823
1 2.05014
2 2.14507
3 3.00236
4 2.07959
5 2.09982
6 2.14888
EOD
$tool2 << EOD
0 2.68799
1 3.55965
2 5.36921
3 11.7125
4 2.63065
5 3.58586
6 5.29318
EOD
$tool3 << EOD
0 7.0408
1 20.3771
2 31.9694
4 7.29977
EOD
$tool4 << EOD
0 65.765
1 3462.07
2 23241
3 426231
4 60.6291
5 3303.08
6 24282.5
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
plot $tool0 using 1:2 with linespoints pt 4 title "chad", $tool1 using 1:2 with linespoints pt 5 title "chad, subnormals flushed", $tool2 using 1:2 with linespoints pt 6 title "chad (port)", $tool3 using 1:2 with linespoints pt 7 title "ADOL-C", $tool4 using 1:2 with linespoints pt 8 title "finite differences"
