# adbench: time(derivative) / time(ADBench objective) for lstm
$tool0 << EOD
0 5.73758
1 5.84175
2 5.95393
3 11.0861
4 10.5125
EOD
$tool1 << EOD
0 529.034
1 526.502
2 1007.68
3 539.146
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
