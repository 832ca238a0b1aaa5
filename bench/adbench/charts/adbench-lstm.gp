# adbench: time(derivative) / time(ADBench objective) for lstm
$tool0 << EOD
0 2.24379
1 2.21326
2 2.2267
3 2.17896
4 2.57438
EOD
$tool1 << EOD
0 6.87285
1 6.78672
2 8.82367
3 12.9062
4 12.2928
EOD
$tool2 << EOD
0 542.632
1 535.42
2 994.177
3 529.194
EOD
set terminal pngcairo size 720,440 font ",10"
set output "/tmp/bench4/adbench-lstm.png"
set title "lstm: time(derivative) / time(ADBench's C objective)"
set logscale y
set ylabel "ratio (log scale)"
set xlabel "size"
set key outside right
set grid ytics
set offsets 0.3, 0.3, 0, 0
set bmargin 6
set xtics rotate by -30 ("l2 c256 (cut)" 0, "l2 c1024" 1, "l4 c1024" 2, "l2 c4096" 3, "l4 c4096" 4)
plot $tool0 using 1:2 with linespoints pt 4 title "chad", $tool1 using 1:2 with linespoints pt 5 title "ADOL-C", $tool2 using 1:2 with linespoints pt 6 title "finite differences"
