# adbench: time(derivative) / time(ADBench objective) for lstm
$tool0 << EOD
0 1.76863
1 1.77081
2 1.7455
3 1.80983
4 1.76016
EOD
$tool1 << EOD
0 5.29731
1 5.35432
2 5.4587
3 31.9247
4 31.7842
EOD
$tool2 << EOD
0 537.953
1 537.881
2 968.779
3 541.649
EOD
set terminal pngcairo size 720,440 font ",10"
set output "/tmp/run2/adbench-lstm.png"
set title "lstm: time(derivative) / time(ADBench's C objective)"
set logscale y
set ylabel "ratio (log scale)"
set xlabel "size"
set key outside right
set grid ytics
set offsets 0.3, 0.3, 0, 0
set bmargin 6
set xtics rotate by -30 ("l2 c256 (cut)" 0, "l2 c1024" 1, "l4 c1024" 2, "l2 c4096" 3, "l4 c4096" 4)
plot $tool0 using 1:2 with linespoints pt 4 title "chad", $tool1 using 1:2 with linespoints pt 5 title "ADOL-C", $tool2 using 1:2 with linespoints pt 6 title "finite differences"
