# adbench: time(derivative) / time(ADBench objective) for lstm
$tool0 << EOD
0 2.99306
1 2.95795
2 2.93176
3 3.10442
4 3.07597
EOD
$tool1 << EOD
0 5.46004
1 5.76988
2 5.61566
3 10.8359
4 11.3963
EOD
$tool2 << EOD
0 545.921
1 542.803
2 993.208
3 573.159
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
