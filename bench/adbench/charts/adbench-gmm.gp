# adbench: time(derivative) / time(ADBench objective) for gmm
$tool0 << EOD
0 8.92727
1 10.1385
2 18.315
3 37.2839
4 9.0328
5 10.1808
6 18.6456
EOD
$tool1 << EOD
0 5.31662
1 6.05699
2 9.37159
3 18.9444
4 5.30734
5 5.95974
6 9.31884
EOD
$tool2 << EOD
0 5.33621
1 20.1907
2 33.6059
4 5.38208
EOD
$tool3 << EOD
0 59.9306
1 3250.75
2 23031.7
3 425251
4 60.1512
5 3293.33
6 23495.4
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
