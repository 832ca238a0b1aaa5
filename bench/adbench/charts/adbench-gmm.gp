# adbench: time(derivative) / time(ADBench objective) for gmm
$tool0 << EOD
0 7.75405
1 5.25927
2 6.54239
3 12.1864
4 7.53868
5 5.38589
6 6.61348
EOD
$tool1 << EOD
0 3.97356
1 4.8002
2 7.4298
3 14.9842
4 3.94356
5 5.09875
6 7.48522
EOD
$tool2 << EOD
0 5.67177
1 20.6787
2 34.0702
4 5.37283
EOD
$tool3 << EOD
0 61.1898
1 3368.05
2 23481.9
3 437284
4 59.6625
5 3442.54
6 23379.3
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
