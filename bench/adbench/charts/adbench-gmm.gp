# adbench: time(derivative) / time(ADBench objective) for gmm
$tool0 << EOD
0 2.11844
1 1.97361
2 2.14486
3 2.77318
4 2.10361
5 1.98249
6 2.22722
EOD
$tool1 << EOD
0 2.13996
1 1.97825
2 2.13692
3 2.75501
4 2.09638
5 1.97888
6 2.24968
EOD
$tool2 << EOD
0 2.45123
1 3.43668
2 5.2205
3 10.4314
4 2.41646
5 3.44089
6 5.27263
EOD
$tool3 << EOD
0 5.71859
1 65.572
2 106.021
4 5.66505
EOD
$tool4 << EOD
0 60.3217
1 3361.08
2 23104.1
3 430304
4 60.7971
5 3284.98
6 23433
EOD
set terminal pngcairo size 720,440 font ",10"
set output "adbench-gmm.png"
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
