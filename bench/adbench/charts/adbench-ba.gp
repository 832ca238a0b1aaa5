# adbench: time(derivative) / time(ADBench objective) for ba
$tool0 << EOD
0 6.98746
1 6.94509
2 7.06903
3 6.58398
EOD
$tool1 << EOD
0 191.191
1 194.289
2 193.183
3 179.697
EOD
$tool2 << EOD
0 44.5606
1 39.4581
2 41.3096
3 41.2056
EOD
set terminal pngcairo size 720,440 font ",10"
set output "/tmp/b2/adbench-ba.png"
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
