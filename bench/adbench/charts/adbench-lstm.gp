# adbench: time(derivative) / time(ADBench objective) for lstm
$tool0 << EOD
0 2.3027
1 0.91646
2 1.25412
3 2.02116
4 2.02813
EOD
$tool1 << EOD
0 6.55943
1 6.53873
2 7.06458
3 11.8632
4 11.4631
EOD
$tool2 << EOD
0 574.8
1 302.852
2 599.438
3 534.184
EOD
set terminal pngcairo size 720,440 font ",10"
set output "/tmp/ab6/adbench-lstm.png"
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
