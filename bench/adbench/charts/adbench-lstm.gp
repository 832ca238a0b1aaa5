# adbench: time(derivative) / time(ADBench objective) for lstm
$tool0 << EOD
0 2.16135
1 2.34332
2 2.18136
3 2.37617
4 3.38793
EOD
$tool1 << EOD
0 6.70922
1 7.31627
2 8.10762
3 13.6213
4 12.8872
EOD
$tool2 << EOD
0 515.091
1 533.133
2 968.518
3 549.214
EOD
set terminal pngcairo size 720,440 font ",10"
set output "/tmp/b2/adbench-lstm.png"
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
