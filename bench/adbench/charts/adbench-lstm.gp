# adbench: time(derivative) / time(ADBench objective) for lstm
$tool0 << EOD
0 2.13482
1 2.29847
2 2.34929
3 2.31635
4 3.37556
EOD
$tool1 << EOD
0 6.63565
1 6.92663
2 7.44141
3 13.8339
4 13.3213
EOD
$tool2 << EOD
0 517.816
1 552.211
2 1009.93
3 540.197
EOD
set terminal pngcairo size 720,440 font ",10"
set output "/tmp/bench_out/adbench-lstm.png"
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
