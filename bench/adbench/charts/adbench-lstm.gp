# adbench: time(derivative) / time(ADBench objective) for lstm
$tool0 << EOD
0 3.05314
1 3.07292
2 3.15749
3 3.45807
4 3.19185
EOD
$tool1 << EOD
0 6.80594
1 7.55171
2 6.9586
3 11.7389
4 11.281
EOD
$tool2 << EOD
0 531.103
1 555.629
2 985.173
3 540.44
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
