# adbench: time(derivative) / time(ADBench objective) for gmm
$tool0 << EOD
0 6.28725
1 52.3042
2 91.2849
3 368.669
4 26.1506
5 50.6174
6 146.196
EOD
$tool1 << EOD
0 3.98297
1 4.80561
2 7.08115
3 14.774
4 4.03953
5 7.24006
6 7.05176
EOD
$tool2 << EOD
0 5.42447
1 20.0383
2 32.3989
4 5.57259
EOD
$tool3 << EOD
0 60.5024
1 3289.75
2 23370.8
3 474997
4 59.4062
5 3528.75
6 24078.8
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
