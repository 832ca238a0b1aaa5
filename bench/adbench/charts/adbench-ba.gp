# adbench: time(derivative) / time(ADBench objective) for ba
$tool0 << EOD
0 6.5969
1 6.93449
2 6.95303
3 6.30433
EOD
$tool1 << EOD
0 190.143
1 190.378
2 190.421
3 180.626
EOD
$tool2 << EOD
0 41.3222
1 35.6721
2 37.4295
3 36.5687
EOD
set terminal pngcairo size 720,440 font ",10"
set output "/tmp/bench_out/adbench-ba.png"
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
