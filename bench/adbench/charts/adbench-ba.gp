# adbench: time(derivative) / time(ADBench objective) for ba
$tool0 << EOD
0 6.30813
1 6.79266
2 6.9571
3 6.2912
EOD
$tool1 << EOD
0 192.284
1 193.509
2 191.988
3 187.816
EOD
$tool2 << EOD
0 40.0094
1 37.9942
2 40.7921
3 35.786
EOD
set terminal pngcairo size 720,440 font ",10"
set output "/tmp/bench4/adbench-ba.png"
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
