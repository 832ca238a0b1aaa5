# adbench: time(derivative) / time(ADBench objective) for gmm
$tool0 << EOD
0 5.46846
1 6.14641
2 9.05431
3 19.6689
4 5.36596
5 5.94662
6 9.26468
EOD
$tool1 << EOD
0 5.56305
1 19.4051
2 32.9537
4 5.23816
EOD
$tool2 << EOD
0 60.4726
1 3290.33
2 22639.9
3 449295
4 59.8036
5 3232.7
6 23024.5
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
plot $tool0 using 1:2 with linespoints pt 4 title "chad (port)", $tool1 using 1:2 with linespoints pt 5 title "ADOL-C", $tool2 using 1:2 with linespoints pt 6 title "finite differences"
