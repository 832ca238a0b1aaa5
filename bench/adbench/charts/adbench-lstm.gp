# adbench: time(derivative) / time(ADBench objective) for lstm
$tool0 << EOD
0 7.63824
1 7.72275
2 7.52261
3 7.65743
4 7.69903
EOD
$tool1 << EOD
0 5.75792
1 5.97516
2 5.96469
3 10.6804
4 10.4852
EOD
$tool2 << EOD
0 539.183
1 535.243
2 997.891
3 539.452
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
plot $tool0 using 1:2 with linespoints pt 4 title "chad", $tool1 using 1:2 with linespoints pt 5 title "ADOL-C", $tool2 using 1:2 with linespoints pt 6 title "finite differences"
