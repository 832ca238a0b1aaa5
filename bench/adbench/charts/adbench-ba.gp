# adbench: time(derivative) / time(ADBench objective) for ba
$tool0 << EOD
0 6.33093
1 7.19298
2 6.93678
3 6.62383
EOD
$tool1 << EOD
0 191.79
1 193.712
2 185.571
3 182.189
EOD
$tool2 << EOD
0 39.5061
1 38.7164
2 37.7131
3 38.3157
EOD
set terminal pngcairo size 720,440 font ",10"
set output "/tmp/b3/adbench-ba.png"
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
