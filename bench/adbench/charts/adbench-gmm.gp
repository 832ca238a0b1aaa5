# adbench: time(derivative) / time(ADBench objective) for gmm
$tool0 << EOD
0 3.42578
1 2.63582
2 2.80111
3 7.7927
4 3.45203
5 2.1311
6 2.76969
EOD
$tool1 << EOD
0 3.47957
1 2.58936
2 2.76313
3 3.38267
4 3.52004
5 2.16141
6 2.7783
EOD
$tool2 << EOD
0 2.48644
1 3.97441
2 5.52578
3 19.6426
4 2.6492
5 3.21776
6 5.25183
EOD
$tool3 << EOD
0 6.33107
1 24.445
2 33.9361
4 6.77033
EOD
$tool4 << EOD
0 57.7672
1 3306.13
2 23220.4
3 427605
4 66.4514
5 3055.93
6 22147.8
EOD
set terminal pngcairo size 720,440 font ",10"
set output "/tmp/b3/adbench-gmm.png"
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
