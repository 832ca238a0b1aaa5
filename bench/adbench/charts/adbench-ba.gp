# adbench: time(derivative) / time(ADBench objective) for ba
$tool0 << EOD
0 8.53698
1 8.52337
2 8.37621
3 8.14345
EOD
$tool1 << EOD
0 223.402
1 223.597
2 222.573
3 217.838
EOD
$tool2 << EOD
0 43.8014
1 44.3654
2 42.2332
3 41.3793
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
