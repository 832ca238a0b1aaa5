# adbench: time(derivative) / time(ADBench objective) for lstm
$tool0 << EOD
0 2.16259
1 2.13649
2 2.06957
3 2.22689
4 3.16625
EOD
$tool1 << EOD
0 6.4326
1 6.8424
2 7.1266
3 12.9648
4 12.5462
EOD
$tool2 << EOD
0 521.866
1 568.223
2 971.66
3 544.447
EOD
set terminal pngcairo size 720,440 font ",10"
set output "/tmp/b3/adbench-lstm.png"
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
