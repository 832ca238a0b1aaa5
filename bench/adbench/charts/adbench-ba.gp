# adbench: time(derivative) / time(ADBench objective) for ba
$tool0 << EOD
0 6.59215
1 6.79422
2 7.17692
3 6.66318
EOD
$tool1 << EOD
0 202.151
1 189.966
2 190.088
3 187.05
EOD
$tool2 << EOD
0 39.5197
1 36.6525
2 40.6699
3 38.0499
EOD
set terminal pngcairo size 720,440 font ",10"
set output "/tmp/bench1/adbench-ba.png"
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
