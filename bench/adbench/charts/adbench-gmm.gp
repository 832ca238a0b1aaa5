# adbench: time(derivative) / time(ADBench objective) for gmm
$tool0 << EOD
0 2.0728
1 1.97905
2 2.11607
3 2.74837
4 2.11332
5 1.98357
6 2.24463
EOD
$tool1 << EOD
0 2.08607
1 1.97175
2 2.11995
3 2.75743
4 2.12787
5 1.97239
6 2.22455
EOD
$tool2 << EOD
0 2.44442
1 3.43455
2 5.22296
3 10.4748
4 2.4458
5 3.44732
6 5.30063
EOD
$tool3 << EOD
0 5.44941
1 64.0518
2 104.423
4 5.63684
EOD
$tool4 << EOD
0 59.3141
1 3373.72
2 23780.2
3 466030
4 60.1859
5 3285.84
6 23114.8
EOD
set terminal pngcairo size 720,440 font ",10"
set output "/tmp/abrun3/adbench-gmm.png"
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
