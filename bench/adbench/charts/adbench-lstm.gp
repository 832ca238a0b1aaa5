# adbench: time(derivative) / time(ADBench objective) for lstm
$tool0 << EOD
0 5.5613
1 5.37784
2 6.69489
3 12.2852
4 12.6612
EOD
$tool1 << EOD
0 487.765
1 597.682
2 1084.49
3 535.607
EOD
set terminal pngcairo size 720,440 font ",10"
set output "bench/adbench/charts/adbench-lstm.png"
set title "lstm: time(derivative) / time(ADBench's C objective)"
set logscale y
set ylabel "ratio (log scale)"
set xlabel "size"
set key outside right
set grid ytics
set offsets 0.3, 0.3, 0, 0
set bmargin 6
set xtics rotate by -30 ("l2 c256 (cut)" 0, "l2 c1024" 1, "l4 c1024" 2, "l2 c4096" 3, "l4 c4096" 4)
plot $tool0 using 1:2 with linespoints pt 4 title "ADOL-C", $tool1 using 1:2 with linespoints pt 5 title "finite differences"
