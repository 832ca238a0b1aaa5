# adbench: time(derivative) / time(ADBench objective) for lstm
$tool0 << EOD
0 3.12164
1 3.01022
2 5.09758
3 2.89245
4 3.15001
EOD
$tool1 << EOD
0 7.23583
1 7.2884
2 3.73149
3 11.2296
4 15.854
EOD
$tool2 << EOD
0 587.095
1 513.165
2 983.207
3 518.946
EOD
set terminal pngcairo size 720,440 font ",10"
set output "/tmp/abo2/adbench-lstm.png"
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
