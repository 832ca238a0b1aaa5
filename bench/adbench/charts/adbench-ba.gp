# adbench: time(derivative) / time(ADBench objective) for ba
$tool0 << EOD
0 5.38263
1 5.28709
2 5.29699
3 5.256
EOD
$tool1 << EOD
0 262.972
1 262.015
2 254.056
3 224.157
EOD
$tool2 << EOD
0 43.5346
1 42.8325
2 42.721
3 42.9978
EOD
set terminal pngcairo size 720,440 font ",10"
set output "/tmp/abrun3/adbench-ba.png"
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
