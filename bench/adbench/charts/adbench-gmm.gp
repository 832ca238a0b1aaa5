# adbench: time(derivative) / time(ADBench objective) for gmm
$tool0 << EOD
0 3.30225
1 2.71563
2 2.59413
3 8.73141
4 3.31855
5 2.53077
6 2.55402
EOD
$tool1 << EOD
0 3.30935
1 2.50503
2 2.60728
3 3.58387
4 3.46367
5 2.48427
6 2.53215
EOD
$tool2 << EOD
0 2.47853
1 4.0569
2 5.49311
3 18.5394
4 2.50401
5 3.90594
6 5.35604
EOD
$tool3 << EOD
0 6.61827
1 24.5699
2 35.6135
4 5.82847
EOD
$tool4 << EOD
0 59.5301
1 3493.18
2 22259.2
3 431528
4 57.3468
5 3182.5
6 23596.3
EOD
set terminal pngcairo size 720,440 font ",10"
set output "/tmp/bench_out/adbench-gmm.png"
set title "gmm: time(derivative) / time(ADBench's C objective)"
set logscale y
set ylabel "ratio (log scale)"
set xlabel "size"
set key outside right
set grid ytics
set offsets 0.3, 0.3, 0, 0
set bmargin 6
set xtics rotate by -30 ("d2 K5 n1000" 0, "d10 K25 n1000" 1, "d20 K50 n1000" 2, "d64 K100 n1000" 3, "d2 K5 n10000" 4, "d10 K25 n10000" 5, "d20 K50 n10000" 6)
plot $tool0 using 1:2 with linespoints pt 4 title "chad", $tool1 using 1:2 with linespoints pt 5 title "chad, subnormals flushed", $tool2 using 1:2 with linespoints pt 6 title "chad (port)", $tool3 using 1:2 with linespoints pt 7 title "ADOL-C", $tool4 using 1:2 with linespoints pt 8 title "finite differences"
