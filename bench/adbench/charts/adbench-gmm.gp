# adbench: time(derivative) / time(ADBench objective) for gmm
$tool0 << EOD
0 9.13389
1 10.2047
2 19.4901
3 36.8525
4 8.93126
5 10.3143
6 18.8279
EOD
$tool1 << EOD
0 5.40503
1 6.0178
2 9.37959
3 18.6281
4 5.32792
5 6.07746
6 9.30426
EOD
$tool2 << EOD
0 5.39933
1 19.0189
2 32.3238
4 5.36555
EOD
$tool3 << EOD
0 60.915
1 3260.93
2 23163.2
3 432358
4 60.694
5 3315.07
6 23212.5
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
