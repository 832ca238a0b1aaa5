# adbench: time(derivative) / time(ADBench objective) for ba
$tool0 << EOD
0 4.79398
1 4.72498
2 5.24596
3 5.25185
EOD
$tool1 << EOD
0 221.41
1 217.041
2 215.796
3 211.793
EOD
$tool2 << EOD
0 39.9261
1 43.1445
2 43.0011
3 43.2441
EOD
set terminal pngcairo size 720,440 font ",10"
set output "/tmp/run2/adbench-ba.png"
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
