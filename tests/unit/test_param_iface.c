/*
 * lib/param/param_iface.c: "interfaces" entries in Samba's syntax
 * (address, address/mask, name, ";key=value,..."), the address match,
 * and what testparm says about entries it cannot use.
 */
#include <arpa/inet.h>
#include <string.h>
#include <sys/socket.h>
#include "tests/unit/param_test_util.h"

static struct lp_iface parse_ok(void **state, const char *entry)
{
	struct lp_iface e;
	bool fatal = true;
	char *err = lp_iface_parse(*state, entry, &e, &fatal);

	if (err != NULL) {
		fail_msg("\"%s\": %s", entry, err);
	}
	assert_false(fatal);
	return e;
}

static void test_iface__forms(void **state)
{
	struct lp_iface e = parse_ok(state, "10.1.2.3");

	assert_true(e.is_addr);
	assert_int_equal(e.family, AF_INET);
	assert_int_equal(e.prefix, -1);
	assert_string_equal(e.what, "10.1.2.3");
	assert_int_equal(e.speed, 0);
	assert_int_equal(e.caps, 0);
	assert_int_equal(e.if_index, 0);

	e = parse_ok(state, "10.1.2.0/24");
	assert_int_equal(e.prefix, 24);
	e = parse_ok(state, "10.1.2.0/255.255.254.0");
	assert_int_equal(e.prefix, 23);
	e = parse_ok(state, "fd00::1/64");
	assert_int_equal(e.family, AF_INET6);
	assert_int_equal(e.prefix, 64);
	e = parse_ok(state, "eth*");
	assert_false(e.is_addr);
	assert_string_equal(e.what, "eth*");
}

static void test_iface__keys(void **state)
{
	struct lp_iface e = parse_ok(state, "eth0;if_index=65,"
				     "speed=100000000000,capability=RSS");

	assert_string_equal(e.what, "eth0");
	assert_int_equal(e.if_index, 65);
	assert_true(e.speed == 100000000000ULL);
	assert_int_equal(e.caps, LP_IFACE_CAP_RSS);
	e = parse_ok(state, "10.0.0.1/8;options=nodynamic,CAPABILITY=rss");
	assert_int_equal(e.prefix, 8);
	assert_int_equal(e.caps, LP_IFACE_CAP_RSS);
}

static void test_iface__refused(void **state)
{
	static const struct {
		const char *entry;
		bool fatal;
		const char *says;
	} cases[] = {
		{ "", true, "not an address" },
		{ "10.0.0.1/33", true, "mask" },
		{ "10.0.0.1/255.0.255.0", true, "mask" },
		{ "eth0/24", true, "mask" },
		{ "a:b", true, "not an address" },
		{ "01234567890123456789012345678901234567890123456789"
		  "0123456789012345", true, "not an address" },
		{ "lo;speed=fast", false, "speed" },
		{ "lo;speed=-1", false, "speed" },
		{ "lo;speed=0", false, "speed" },
		{ "lo;speed=99999999999999999999999", false, "speed" },
		{ "lo;capability=RDMA", false, "SMB Direct" },
		{ "lo;capability=FAST", false, "neither RSS nor RDMA" },
		{ "lo;if_index=0", false, "if_index" },
		{ "lo;if_index=4294967296", false, "if_index" },
		{ "lo;options=dynamic", false, "at start" },
		{ "lo;options=sometimes", false, "neither dynamic" },
		{ "lo;colour=blue", false, "unknown key \"colour\"" },
		{ "lo;speed", false, "key=value" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct lp_iface e;
		bool fatal = !cases[i].fatal;
		char *err = lp_iface_parse(*state, cases[i].entry, &e, &fatal);

		if (err == NULL || strstr(err, cases[i].says) == NULL) {
			fail_msg("\"%s\": %s", cases[i].entry,
				 err ? err : "accepted");
		}
		assert_int_equal(fatal, cases[i].fatal);
		talloc_free(err);
	}
}

/* A refused key is reported; the keys after it still apply. */
static void test_iface__rest_applies(void **state)
{
	struct lp_iface e;
	bool fatal = true;
	char *err = lp_iface_parse(*state, "lo;capability=RDMA,speed=1000,"
				   "bogus=1,if_index=9", &e, &fatal);

	assert_non_null(err);
	assert_non_null(strstr(err, "RDMA"));
	assert_false(fatal);
	assert_int_equal(e.speed, 1000);
	assert_int_equal(e.if_index, 9);
	assert_int_equal(e.caps, 0);
	talloc_free(err);
}

static void test_iface__match(void **state)
{
	struct lp_iface e = parse_ok(state, "10.1.2.0/23");
	uint8_t a[16];

	inet_pton(AF_INET, "10.1.3.200", a);
	assert_true(lp_iface_match_addr(&e, AF_INET, a));
	inet_pton(AF_INET, "10.1.4.1", a);
	assert_false(lp_iface_match_addr(&e, AF_INET, a));
	e = parse_ok(state, "10.1.2.3");
	inet_pton(AF_INET, "10.1.2.3", a);
	assert_true(lp_iface_match_addr(&e, AF_INET, a));
	inet_pton(AF_INET, "10.1.2.4", a);
	assert_false(lp_iface_match_addr(&e, AF_INET, a));
	e = parse_ok(state, "fd00:1::/33");
	inet_pton(AF_INET6, "fd00:1:7fff::5", a);
	assert_true(lp_iface_match_addr(&e, AF_INET6, a));
	inet_pton(AF_INET6, "fd00:1:8000::5", a);
	assert_false(lp_iface_match_addr(&e, AF_INET6, a));
	assert_false(lp_iface_match_addr(&e, AF_INET, a));
	e = parse_ok(state, "lo");
	assert_false(lp_iface_match_addr(&e, AF_INET, a));
}

/* Samba's separators: ';' splits a list as ',' does, unless quoted. */
static void test_iface__list_and_diags(void **state)
{
	struct loaded l = load(*state,
		"[global]\ninterfaces = \"lo;speed=1000,capability=RSS\"; "
		"10.0.0.1/24;eth1 \"eth2;nonsense\"\n");

	assert_int_equal(l.ret, 0);
	assert_string_equal(l.lp->g.interfaces[0],
			    "lo;speed=1000,capability=RSS");
	assert_string_equal(l.lp->g.interfaces[1], "10.0.0.1/24");
	assert_string_equal(l.lp->g.interfaces[2], "eth1");
	assert_string_equal(l.lp->g.interfaces[3], "eth2;nonsense");
	assert_null(l.lp->g.interfaces[4]);
	assert_non_null(find_diag(l.diags, LP_DIAG_WARNING,
				  "t.conf:2: parameter \"interfaces\": "
				  "\"eth2;nonsense\""));
	assert_int_equal(count_diags(l.diags), 1);
	unload(&l);
}

/* 'metrics listen': numeric ADDRESS:PORT only */
static void test_listen_addr(void **state)
{
	static const char *const bad[] = {
		"localhost:9922", "127.0.0.1", "127.0.0.1:", "127.0.0.1:0",
		"127.0.0.1:65536", "127.0.0.1:+80", ":9922", "[::1]", "::1:99x",
		"[127.0.0.1:80", "1.2.3.4.5:80", "",
	};
	struct sockaddr_storage ss;
	const struct sockaddr_in *in = (const void *)&ss;
	const struct sockaddr_in6 *in6 = (const void *)&ss;
	socklen_t len = 0;
	char buf[INET6_ADDRSTRLEN];
	size_t i;

	assert_true(lp_parse_listen_addr("127.0.0.1:9922", &ss, &len));
	assert_int_equal(ss.ss_family, AF_INET);
	assert_int_equal(len, sizeof(struct sockaddr_in));
	assert_int_equal(ntohs(in->sin_port), 9922);
	assert_int_equal(ntohl(in->sin_addr.s_addr), 0x7f000001);
	assert_true(lp_parse_listen_addr("[::1]:65535", &ss, &len));
	assert_int_equal(ss.ss_family, AF_INET6);
	assert_int_equal(ntohs(in6->sin6_port), 65535);
	assert_string_equal(inet_ntop(AF_INET6, &in6->sin6_addr, buf,
				      sizeof(buf)), "::1");
	assert_true(lp_parse_listen_addr("::1:80", &ss, &len));
	assert_int_equal(ss.ss_family, AF_INET6);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (lp_parse_listen_addr(bad[i], &ss, &len)) {
			fail_msg("\"%s\" accepted", bad[i]);
		}
	}
	(void)state;
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	static const struct CMUnitTest tests[] = {
		T(test_iface__forms),
		T(test_iface__keys),
		T(test_iface__refused),
		T(test_iface__rest_applies),
		T(test_iface__match),
		T(test_iface__list_and_diags),
		T(test_listen_addr),
	};
	int ret;

	talloc_enable_null_tracking();
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	talloc_disable_null_tracking();
	return ret;
}
