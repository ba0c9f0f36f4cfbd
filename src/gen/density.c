/*
 * The density of a capture's profile, as spgo gen reports it, for a
 * recorder that records until it is dense enough (spgo/gen.h:
 * spgo_gen_capture_density).  The profile is made and dropped: the density
 * is a property of the profile (src/gen/gen.c, profile_density), not of
 * the raw samples, since in IP mode it is the inferred block counts that
 * the compiler reads.
 */
#include <string.h>

#include "gen_impl.h"
#include "spgo/aggregate.h"
#include "spgo/profile.h"

double spgo_gen_density_min(enum spgo_gen_mode mode)
{
	return mode == SPGO_GEN_IP ? SPGO_GEN_DENSITY_MIN_IP : SPGO_GEN_DENSITY_MIN;
}

int spgo_gen_capture_density(const char *binary, const char *perf_data, struct spgo_gen_density *d)
{
	memset(d, 0, sizeof *d);
	struct spgo_aggregate *agg;
	if (spgo_agg_new(&agg, binary, NULL) < 0)
		return -1;
	/* (the flat profile reads no call stacks: not kept) */
	spgo_agg_keep_stacks(agg, 0);
	int rc = spgo_agg_read_perf(agg, perf_data);
	d->samples = agg->stats.samples_matched;
	d->all = agg->stats.samples;
	d->mode = agg->stats.lbr_samples ? SPGO_GEN_LBR : SPGO_GEN_IP;
	if (rc == 0 && d->samples) {
		struct spgo_gen_opts o;
		struct spgo_gen_stats st;
		struct spgo_profile *p = NULL;
		spgo_gen_defaults(&o);
		rc = spgo_gen(agg, &o, &p, &st);
		if (rc == 0) {
			d->density = st.density;
			d->mode = st.mode;
		}
		spgo_profile_free(p);
	}
	d->min = spgo_gen_density_min(d->mode);
	spgo_agg_free(agg);
	return rc;
}
