# adbench: time(derivative) / time(ADBench objective) for gmm
$tool0 << EOD
0 4.33594
1 4.23854
2 4.56111
3 6.96369
4 4.3564
5 4.36857
6 4.57949
EOD
$tool1 << EOD
0 3.89806
1 4.67744
2 6.92776
3 14.6999
4 3.85633
5 4.78548
6 6.77674
EOD
$tool2 << EOD
0 5.2862
1 19.6083
2 33.3644
4 5.40929
EOD
$tool3 << EOD
0 59.2995
1 3369.14
2 21905.7
3 435567
4 60.0256
5 3403.83
6 22438
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
