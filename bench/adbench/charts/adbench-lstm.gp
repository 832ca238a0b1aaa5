# adbench: time(derivative) / time(ADBench objective) for lstm
$tool0 << EOD
0 3.90915
1 4.10614
2 3.88709
3 4.03763
4 3.8859
EOD
$tool1 << EOD
0 5.67889
1 5.79888
2 5.55905
3 11.1783
4 11.1443
EOD
$tool2 << EOD
0 528.986
1 544.559
2 987.224
3 553.948
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
