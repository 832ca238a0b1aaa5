# adbench: time(derivative) / time(ADBench objective) for lstm
$tool0 << EOD
0 1.71823
1 1.72076
2 1.7529
3 2.07379
4 1.75942
EOD
$tool1 << EOD
0 5.76179
1 5.96864
2 5.88019
3 35.2307
4 33.2319
EOD
$tool2 << EOD
0 541.185
1 527.665
2 1725.84
EOD
set terminal pngcairo size 720,440 font ",10"
set output "/tmp/abrun3/adbench-lstm.png"
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
