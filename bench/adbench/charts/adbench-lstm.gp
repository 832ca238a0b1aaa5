# adbench: time(derivative) / time(ADBench objective) for lstm
$tool0 << EOD
0 1.44924
1 1.47397
2 1.44934
3 1.45401
4 1.63824
EOD
$tool1 << EOD
0 6.89042
1 6.81653
2 6.65221
3 11.5243
4 11.1144
EOD
$tool2 << EOD
0 553.049
1 471.822
2 1021.54
3 465.705
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
