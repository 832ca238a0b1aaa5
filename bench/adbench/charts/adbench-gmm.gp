# adbench: time(derivative) / time(ADBench objective) for gmm
$tool0 << EOD
0 8.91695
1 10.3035
2 18.1947
3 36.116
4 8.93822
5 10.3513
6 17.8677
EOD
$tool1 << EOD
0 5.26266
1 6.01227
2 8.86191
3 17.113
4 5.39577
5 6.20172
6 8.62038
EOD
$tool2 << EOD
0 5.81484
1 19.2384
2 31.5684
4 5.49039
EOD
$tool3 << EOD
0 59.3314
1 3310.31
2 23073.3
3 429691
4 60.1155
5 3345.8
6 22465.7
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
