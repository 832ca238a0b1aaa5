# adbench: time(derivative) / time(ADBench objective) for lstm
$tool0 << EOD
0 1.44851
1 1.44688
2 1.45854
3 1.44821
4 1.4581
EOD
$tool1 << EOD
0 7.312
1 7.20329
2 7.65749
3 11.1756
4 11.4886
EOD
$tool2 << EOD
0 537.128
1 531.209
2 1006.92
3 533.833
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
