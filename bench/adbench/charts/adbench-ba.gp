# adbench: time(derivative) / time(ADBench objective) for ba
$tool0 << EOD
0 8.90171
1 8.81975
2 8.3737
3 8.30577
EOD
$tool1 << EOD
0 227.646
1 221.476
2 223.684
3 217.327
EOD
$tool2 << EOD
0 44.7207
1 44.1122
2 43.9114
3 43.7046
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
plot $tool0 using 1:2 with linespoints pt 4 title "chad", $tool1 using 1:2 with linespoints pt 5 title "ADOL-C", $tool2 using 1:2 with linespoints pt 6 title "finite differences"
