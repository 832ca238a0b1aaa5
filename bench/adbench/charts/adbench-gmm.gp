# adbench: time(derivative) / time(ADBench objective) for gmm
$tool0 << EOD
0 7.32499
1 4.78781
2 5.97361
3 9.85459
4 7.31266
5 5.02643
6 5.86175
EOD
$tool1 << EOD
0 4.17289
1 4.84112
2 7.15322
3 13.5754
4 4.04384
5 4.84777
6 7.05424
EOD
$tool2 << EOD
0 5.82352
1 22.002
2 33.7611
4 5.39173
EOD
$tool3 << EOD
0 59.9215
1 3442.91
2 23945.3
3 420788
4 59.0146
5 3349.85
6 23856.6
EOD
set terminal pngcairo size 720,440 font ",10"
set output "bench/adbench/charts/adbench-gmm.png"
set title "gmm: time(derivative) / time(ADBench's C objective)"
set logscale y
set ylabel "ratio (log scale)"
set xlabel "size"
set key outside right
set grid ytics
set offsets 0.3, 0.3, 0, 0
set bmargin 6
set xtics rotate by -30 ("d2 K5 n1000" 0, "d10 K25 n1000" 1, "d20 K50 n1000" 2, "d64 K100 n1000" 3, "d2 K5 n10000" 4, "d10 K25 n10000" 5, "d20 K50 n10000" 6)
plot $tool0 using 1:2 with linespoints pt 4 title "chad", $tool1 using 1:2 with linespoints pt 5 title "chad (port)", $tool2 using 1:2 with linespoints pt 6 title "ADOL-C", $tool3 using 1:2 with linespoints pt 7 title "finite differences"
