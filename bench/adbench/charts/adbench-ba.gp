# adbench: time(derivative) / time(ADBench objective) for ba
$tool0 << EOD
0 5.58
1 5.451
2 5.4534
3 5.39885
EOD
$tool1 << EOD
0 5.6687
1 5.5597
2 5.51149
3 5.52281
EOD
$tool2 << EOD
0 3.91324
1 3.81574
2 3.78368
3 3.80166
EOD
$tool3 << EOD
0 203.581
1 193.636
2 195.298
3 185.895
EOD
$tool4 << EOD
0 42.6217
1 41.7138
2 41.8849
3 41.8585
EOD
set terminal pngcairo size 720,440 font ",10"
set output "bench/adbench/charts/adbench-ba.png"
set title "ba: time(derivative) / time(ADBench's C objective)"
set logscale y
set ylabel "ratio (log scale)"
set xlabel "size"
set key outside right
set grid ytics
set offsets 0.3, 0.3, 0, 0
set bmargin 6
set xtics rotate by -30 ("ba1 p31843" 0, "ba3 p182072" 1, "ba5 p225911" 2, "ba10 p563734" 3)
plot $tool0 using 1:2 with linespoints pt 4 title "chad", $tool1 using 1:2 with linespoints pt 5 title "hand-written, per row", $tool2 using 1:2 with linespoints pt 6 title "hand-written, shared forward", $tool3 using 1:2 with linespoints pt 7 title "ADOL-C", $tool4 using 1:2 with linespoints pt 8 title "finite differences"
