# Timed workload of the perl interpreter in the PGO suite
# (bench/pgo/perl.sh): programs other than the training ones (pl_train.pl)
# that use much of the same core language.  Core language only, no modules.
# Usage: perl pl_time.pl N

# --- n-body (floating point, arrays of arrays)
sub nbody {
    my ($steps) = @_;
    my $pi = 3.141592653589793;
    my $sm = 4 * $pi * $pi;
    my $dp = 365.24;
    my @b = (
        [0, 0, 0, 0, 0, 0, $sm],
        [4.84143144246472090e+00, -1.16032004402742839e+00, -1.03622044471123109e-01,
         1.66007664274403694e-03 * $dp, 7.69901118419740425e-03 * $dp, -6.90460016972063023e-05 * $dp,
         9.54791938424326609e-04 * $sm],
        [8.34336671824457987e+00, 4.12479856412430479e+00, -4.03523417114321381e-01,
         -2.76742510726862411e-03 * $dp, 4.99852801234917238e-03 * $dp, 2.30417297573763929e-05 * $dp,
         2.85885980666130812e-04 * $sm],
        [1.28943695621391310e+01, -1.51111514016986312e+01, -2.23307578892655734e-01,
         2.96460137564761618e-03 * $dp, 2.37847173959480950e-03 * $dp, -2.96589568540237556e-05 * $dp,
         4.36624404335156298e-05 * $sm],
        [1.53796971148509165e+01, -2.59193146099879641e+01, 1.79258772950371181e-01,
         2.68067772490389322e-03 * $dp, 1.62824170038242295e-03 * $dp, -9.51592254519715870e-05 * $dp,
         5.15138902046611451e-05 * $sm],
    );
    my $dt = 0.01;
    for (1 .. $steps) {
        for my $i (0 .. $#b) {
            my $bi = $b[$i];
            for my $j ($i + 1 .. $#b) {
                my $bj = $b[$j];
                my ($dx, $dy, $dz) = ($bi->[0] - $bj->[0], $bi->[1] - $bj->[1], $bi->[2] - $bj->[2]);
                my $d2 = $dx * $dx + $dy * $dy + $dz * $dz;
                my $mag = $dt / ($d2 * sqrt $d2);
                my ($mi, $mj) = ($bi->[6] * $mag, $bj->[6] * $mag);
                $bi->[3] -= $dx * $mj; $bi->[4] -= $dy * $mj; $bi->[5] -= $dz * $mj;
                $bj->[3] += $dx * $mi; $bj->[4] += $dy * $mi; $bj->[5] += $dz * $mi;
            }
        }
        for my $p (@b) {
            $p->[0] += $dt * $p->[3]; $p->[1] += $dt * $p->[4]; $p->[2] += $dt * $p->[5];
        }
    }
    my $e = 0;
    for my $i (0 .. $#b) {
        my $p = $b[$i];
        $e += 0.5 * $p->[6] * ($p->[3] ** 2 + $p->[4] ** 2 + $p->[5] ** 2);
        for my $j ($i + 1 .. $#b) {
            my $q = $b[$j];
            $e -= $p->[6] * $q->[6] / sqrt(($p->[0] - $q->[0]) ** 2 + ($p->[1] - $q->[1]) ** 2 + ($p->[2] - $q->[2]) ** 2);
        }
    }
    return sprintf('%.9f', $e);
}

# --- a task scheduler (objects, method dispatch, queues, closures)
package Task;
sub new {
    my ($class, $id, $prio, $work) = @_;
    return bless { id => $id, prio => $prio, work => $work, runs => 0, state => 'ready' }, $class;
}
sub id { $_[0]{id} }
sub prio { $_[0]{prio} }
sub run {
    my ($self, $sched) = @_;
    $self->{runs}++;
    my $r = $self->{work}->($self, $sched);
    $self->{state} = $r ? 'ready' : 'done';
    return $r;
}

package IoTask;
our @ISA = ('Task');
sub run {
    my ($self, $sched) = @_;
    $sched->{io}++;
    return $self->SUPER::run($sched);
}

package Scheduler;
sub new { return bless { queue => [], io => 0, log => [], ticks => 0 }, shift }
sub add { my ($s, $t) = @_; push @{ $s->{queue} }, $t; return $s }
sub step {
    my ($s) = @_;
    my $q = $s->{queue};
    return 0 unless @$q;
    my $best = 0;
    for my $i (1 .. $#$q) { $best = $i if $q->[$i]->prio > $q->[$best]->prio }
    my ($t) = splice(@$q, $best, 1);
    $s->{ticks}++;
    if ($t->run($s)) { $t->{prio} = ($t->{prio} + 3) % 10; push @$q, $t }
    else { push @{ $s->{log} }, $t->id }
    return 1;
}

package main;

sub scheduler {
    my ($n) = @_;
    my $s = Scheduler->new;
    my $acc = 0;
    for my $i (1 .. $n) {
        my $left = 5 + $i % 13;
        my $cls = $i % 3 ? 'Task' : 'IoTask';
        $s->add($cls->new("t$i", $i % 10, sub { $acc += $_[0]{runs}; return --$left > 0 }));
        $s->step for 1 .. 12;
    }
    1 while $s->step;
    return "$s->{ticks}/$s->{io}/$acc/" . scalar @{ $s->{log} };
}

# --- fannkuch (array permutations, slices, reverse)
sub fannkuch {
    my ($n) = @_;
    my @perm1 = (0 .. $n - 1);
    my @count = (0) x $n;
    my ($maxflips, $checksum, $r, $sign) = (0, 0, $n, 1);
    while (1) {
        while ($r != 1) { $count[$r - 1] = $r; $r-- }
        my @perm = @perm1;
        my $flips = 0;
        while ((my $k = $perm[0]) != 0) {
            @perm[0 .. $k] = reverse @perm[0 .. $k];
            $flips++;
        }
        $maxflips = $flips if $flips > $maxflips;
        $checksum += $sign * $flips;
        $sign = -$sign;
        while (1) {
            return "$checksum/$maxflips" if $r == $n;
            my $p0 = $perm1[0];
            @perm1[0 .. $r - 1] = @perm1[1 .. $r];
            $perm1[$r] = $p0;
            $count[$r]--;
            last if $count[$r] > 0;
            $r++;
        }
    }
}

# --- a JSON-like serializer and a regex-driven parser
sub to_json {
    my ($v) = @_;
    my $r = ref $v;
    if ($r eq 'HASH') {
        return '{' . join(',', map { '"' . $_ . '":' . to_json($v->{$_}) } sort keys %$v) . '}';
    }
    if ($r eq 'ARRAY') { return '[' . join(',', map { to_json($_) } @$v) . ']' }
    return 'null' unless defined $v;
    return $v if $v =~ /^-?\d+(?:\.\d+)?$/;
    (my $s = $v) =~ s/(["\\])/\\$1/g;
    return qq("$s");
}

sub from_json {
    my ($str) = @_;
    my $pos = 0;
    my $val;
    $val = sub {
        $str =~ /\G\s*/gc;
        if ($str =~ /\G\{/gc) {
            my %h;
            until ($str =~ /\G\s*\}/gc) {
                $str =~ /\G\s*,/gc;
                $str =~ /\G\s*"((?:[^"\\]|\\.)*)"\s*:/gc or die 'key';
                my $k = $1;
                $h{$k} = $val->();
            }
            return \%h;
        }
        if ($str =~ /\G\[/gc) {
            my @a;
            until ($str =~ /\G\s*\]/gc) {
                $str =~ /\G\s*,/gc;
                push @a, $val->();
            }
            return \@a;
        }
        return $1 + 0 if $str =~ /\G(-?\d+(?:\.\d+)?)/gc;
        if ($str =~ /\G"((?:[^"\\]|\\.)*)"/gc) { (my $s = $1) =~ s/\\(.)/$1/g; return $s }
        return undef if $str =~ /\Gnull/gc;
        die 'value at ' . pos($str);
    };
    my $v = $val->();
    undef $val;
    return $v;
}

sub json_roundtrip {
    my ($n) = @_;
    my $total = 0;
    for my $i (1 .. $n) {
        my $doc = {
            id => $i, name => "item \"$i\"", tags => [map { "tag$_" } 1 .. $i % 6],
            price => sprintf('%.2f', $i * 1.37), stock => { north => $i % 7, south => $i % 11, east => undef },
            history => [map { { day => $_, qty => ($_ * $i) % 23 } } 1 .. 4],
        };
        my $js = to_json($doc);
        my $back = from_json($js);
        $total += length($js) + $back->{stock}{south} + @{ $back->{history} };
        $total += 1 if to_json($back) eq $js;
    }
    return $total;
}

# --- formatting, multi-key sorting and grouping of records
sub report {
    my ($n) = @_;
    my @depts = qw(sales ops dev support legal);
    my @recs;
    my $seed = 1;
    for my $i (1 .. $n) {
        $seed = ($seed * 1664525 + 1013904223) % 4294967296;
        push @recs, { name => sprintf('emp%04d', $seed % 9973), dept => $depts[$seed % 5],
                      salary => 30000 + $seed % 50000, age => 20 + $seed % 45 };
    }
    my @sorted = sort { $a->{dept} cmp $b->{dept} || $b->{salary} <=> $a->{salary} || $a->{name} cmp $b->{name} } @recs;
    my (%sum, %cnt);
    my @lines;
    for my $r (@sorted) {
        $sum{ $r->{dept} } += $r->{salary};
        $cnt{ $r->{dept} }++;
        push @lines, sprintf('%-8s %-10s %8d %3d', $r->{dept}, $r->{name}, $r->{salary}, $r->{age});
    }
    my $out = join("\n", @lines);
    my $tpl = 'dept {dept}: {n} people, mean {mean}';
    my $summary = '';
    for my $d (sort keys %sum) {
        my %v = (dept => uc $d, n => $cnt{$d}, mean => sprintf('%.1f', $sum{$d} / $cnt{$d}));
        (my $l = $tpl) =~ s/\{(\w+)\}/$v{$1}/g;
        $summary .= "$l\n";
    }
    my @f = map { (split ' ', $_)[1] } grep { /\bdev\b/ } split /\n/, $out;
    return length($out) . '/' . scalar(@f) . '/' . length $summary;
}

# --- edit distance (nested loops, 2-row arrays, substr)
sub levenshtein {
    my ($s, $t) = @_;
    my @prev = (0 .. length $t);
    for my $i (1 .. length $s) {
        my @cur = ($i);
        my $c = substr($s, $i - 1, 1);
        for my $j (1 .. length $t) {
            my $cost = $c eq substr($t, $j - 1, 1) ? 0 : 1;
            my $d = $prev[$j - 1] + $cost;
            $d = $prev[$j] + 1 if $prev[$j] + 1 < $d;
            $d = $cur[$j - 1] + 1 if $cur[$j - 1] + 1 < $d;
            push @cur, $d;
        }
        @prev = @cur;
    }
    return $prev[-1];
}

sub distances {
    my ($n) = @_;
    my @w = qw(interpreter interpolation integration internationalization intermediate
               profile profiler prefetch propagation probability);
    my $sum = 0;
    for my $i (1 .. $n) {
        $sum += levenshtein($w[$i % @w], $w[($i * 3 + 1) % @w]);
    }
    return $sum;
}

my $n = shift // 1;
my @r;
for (1 .. $n) {
    @r = (nbody(25000), scheduler(8000), fannkuch(8), json_roundtrip(1800),
          report(25000), distances(3000));
}
print join(' ', @r), "\n";
