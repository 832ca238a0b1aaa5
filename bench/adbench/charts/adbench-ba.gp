# adbench: time(derivative) / time(ADBench objective) for ba
$tool0 << EOD
0 5.36463
1 5.49054
2 5.42872
3 5.39685
EOD
$tool1 << EOD
0 5.68659
1 5.51353
2 5.49043
3 5.48326
EOD
$tool2 << EOD
0 3.81412
1 3.75186
2 3.79002
3 3.77654
EOD
$tool3 << EOD
0 198.633
1 190.654
2 191.92
3 190.648
EOD
$tool4 << EOD
0 42.25
1 41.5001
2 41.0435
3 41.0646
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
