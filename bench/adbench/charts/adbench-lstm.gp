# adbench: time(derivative) / time(ADBench objective) for lstm
$tool0 << EOD
0 1.65863
1 1.66576
2 1.69052
3 1.69072
4 1.72588
EOD
$tool1 << EOD
0 5.73333
1 5.72936
2 5.67394
3 34.2029
4 42.861
EOD
$tool2 << EOD
0 529.687
1 536.341
2 934.923
3 539.761
EOD
set terminal pngcairo size 720,440 font ",10"
set output "adbench-lstm.png"
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
