# adbench: time(derivative) / time(ADBench objective) for ba
$tool0 << EOD
0 6.2493
1 6.23985
2 6.19703
3 6.20195
EOD
$tool1 << EOD
0 168.054
1 195.275
2 203.962
3 192.22
EOD
$tool2 << EOD
0 42.0368
1 41.6563
2 41.5718
3 41.2242
EOD
set terminal pngcairo size 720,440 font ",10"
set output "/tmp/ab6/adbench-ba.png"
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
