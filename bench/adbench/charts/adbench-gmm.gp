# adbench: time(derivative) / time(ADBench objective) for gmm
$tool0 << EOD
0 3.24668
1 2.48624
2 2.55386
3 7.37097
4 3.15858
5 2.48955
6 2.51343
EOD
$tool1 << EOD
0 3.12226
1 2.39113
2 2.49032
3 3.18085
4 3.17412
5 2.39255
6 2.4627
EOD
$tool2 << EOD
0 2.60782
1 3.97626
2 5.44731
3 18.3741
4 2.50987
5 3.95492
6 5.44082
EOD
$tool3 << EOD
0 6.29916
1 23.992
2 35.6503
4 6.71852
EOD
$tool4 << EOD
0 59.8703
1 3358.33
2 22646.5
3 409411
4 60.7474
5 3260.57
6 22464.4
EOD
set terminal pngcairo size 720,440 font ",10"
set output "/tmp/bench4/adbench-gmm.png"
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
