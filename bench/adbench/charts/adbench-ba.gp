# adbench: time(derivative) / time(ADBench objective) for ba
$tool0 << EOD
0 7.9769
1 7.79183
2 7.77067
3 7.69545
EOD
$tool1 << EOD
0 218.451
1 216.762
2 217.532
3 216.58
EOD
$tool2 << EOD
0 45.2929
1 46.8635
2 44.6734
3 45.3865
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
