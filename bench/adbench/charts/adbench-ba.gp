# adbench: time(derivative) / time(ADBench objective) for ba
$tool0 << EOD
0 8.23851
1 8.35833
2 8.24166
3 8.19803
EOD
$tool1 << EOD
0 228.917
1 229.326
2 201.43
3 212.62
EOD
$tool2 << EOD
0 46.089
1 44.6969
2 44.2997
3 43.5413
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
