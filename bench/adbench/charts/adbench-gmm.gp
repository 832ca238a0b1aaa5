# adbench: time(derivative) / time(ADBench objective) for gmm
$tool0 << EOD
0 5.09652
1 4.27103
2 4.19703
3 6.90157
4 4.54079
5 4.12866
6 4.77191
EOD
$tool1 << EOD
0 4.43773
1 4.96146
2 6.39789
3 13.5924
4 4.05045
5 4.99138
6 7.14002
EOD
$tool2 << EOD
0 7.75588
1 21.4293
2 33.2514
4 6.6274
EOD
$tool3 << EOD
0 59.5226
1 3370.59
2 20958.3
3 389250
4 60.3671
5 3285.66
6 23087.8
EOD
set terminal pngcairo size 720,440 font ",10"
set output "/tmp/abo2/adbench-gmm.png"
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
