# adbench: time(derivative) / time(ADBench objective) for ba
$tool0 << EOD
0 220.055
1 224.457
2 222.889
3 220.953
EOD
$tool1 << EOD
0 44.0906
1 43.2028
2 44.5436
3 43.1895
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
plot $tool0 using 1:2 with linespoints pt 4 title "ADOL-C", $tool1 using 1:2 with linespoints pt 5 title "finite differences"
