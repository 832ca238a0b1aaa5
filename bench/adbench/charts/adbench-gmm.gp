# adbench: time(derivative) / time(ADBench objective) for gmm
$tool0 << EOD
0 2.19516
1 2.09011
2 2.15019
3 2.91483
4 2.08158
5 2.06911
6 2.14388
EOD
$tool1 << EOD
0 2.24084
1 2.07437
2 2.14436
3 2.90639
4 2.12767
5 2.05387
6 2.15261
EOD
$tool2 << EOD
0 2.16191
1 2.58909
2 3.69135
3 9.0536
4 2.09042
5 2.59753
6 3.74852
EOD
$tool3 << EOD
0 7.59405
1 21.1998
2 32.032
4 6.83655
EOD
$tool4 << EOD
0 58.7031
1 3280.96
2 23202
3 435317
4 57.9603
5 3306.88
6 23702.1
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
