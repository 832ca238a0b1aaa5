# adbench: time(derivative) / time(ADBench objective) for ba
$tool0 << EOD
0 6.37292
1 5.33913
2 6.25276
3 6.22176
EOD
$tool1 << EOD
0 197.243
1 187.618
2 194.595
3 190.596
EOD
$tool2 << EOD
0 43.9349
1 36.5188
2 44.1011
3 41.6487
EOD
set terminal pngcairo size 720,440 font ",10"
set output "/tmp/abo2/adbench-ba.png"
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
