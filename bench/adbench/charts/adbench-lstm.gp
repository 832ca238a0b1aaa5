# adbench: time(derivative) / time(ADBench objective) for lstm
$tool0 << EOD
0 2.11884
1 2.19787
2 2.13543
3 2.22716
4 2.74944
EOD
$tool1 << EOD
0 7.16309
1 6.83297
2 7.62693
3 13.236
4 12.8267
EOD
$tool2 << EOD
0 541.739
1 523.012
2 960.986
3 531.474
EOD
set terminal pngcairo size 720,440 font ",10"
set output "/tmp/bench1/adbench-lstm.png"
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
