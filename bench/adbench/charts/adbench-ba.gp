# adbench: time(derivative) / time(ADBench objective) for ba
$tool0 << EOD
0 5.35402
1 5.25627
2 5.25114
3 5.21349
EOD
$tool1 << EOD
0 5.53982
1 5.44852
2 5.43423
3 5.41017
EOD
$tool2 << EOD
0 3.65422
1 3.61133
2 3.59347
3 3.5723
EOD
$tool3 << EOD
0 231.536
1 218.106
2 216.736
3 211.504
EOD
$tool4 << EOD
0 45.1876
1 44.1145
2 44.2796
3 44.1803
EOD
set terminal pngcairo size 720,440 font ",10"
set output "adbench-ba.png"
set title "ba: time(derivative) / time(ADBench's C objective)"
set logscale y
set ylabel "ratio (log scale)"
set xlabel "size"
set key outside right
set grid ytics
set offsets 0.3, 0.3, 0, 0
set bmargin 6
set xtics rotate by -30 ("ba1 p31843" 0, "ba3 p182072" 1, "ba5 p225911" 2, "ba10 p563734" 3)
plot $tool0 using 1:2 with linespoints pt 4 title "chad", $tool1 using 1:2 with linespoints pt 5 title "hand-written, per row", $tool2 using 1:2 with linespoints pt 6 title "hand-written, shared forward", $tool3 using 1:2 with linespoints pt 7 title "ADOL-C", $tool4 using 1:2 with linespoints pt 8 title "finite differences"
