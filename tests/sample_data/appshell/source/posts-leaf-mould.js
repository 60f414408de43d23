import dynamic from "next/dynamic";
import Head from "next/head";

// Rendered in the browser only: the static HTML carries the post as data.
const Article = dynamic(() => import("../../components/Article"), { ssr: false });

export async function getStaticProps() {
  const post = {
    title: "Making leaf mould from autumn leaves",
    author: "Ann Hollis",
    date: "2026-10-12",
    contentHtml:
      "<p>Leaf mould is the crumbly, dark material that fallen leaves become after a year or two of slow decay. It costs nothing, it holds water like a sponge, and it is one of the best things you can dig into a tired bed or mix into a potting compost.</p>" +
      "<h2>Collecting the leaves</h2>" +
      "<p>Rake up leaves after rain, when they are damp and heavy and do not blow about. Oak, beech and hornbeam rot down fastest; sycamore and horse chestnut take longer, and evergreen leaves such as holly or laurel are best left out altogether.</p>" +
      "<ul><li>Run the mower over a pile of leaves to shred them: shredded leaves rot in half the time.</li><li>Keep the leaves out of the compost heap, where they slow everything else down.</li></ul>" +
      "<h2>Storing them while they rot</h2>" +
      "<p>A simple cage of chicken wire on four posts holds a season's leaves from a small garden. If you have no room for a cage, fill black bin bags, make a few holes with a fork, tie them loosely and stack them behind the shed. Check them in summer and water them if they have dried out.</p>" +
      "<h2>Using the leaf mould</h2>" +
      "<p>After one year the leaves make a rough mulch for spreading around shrubs. After two years they have become a fine, sweet-smelling soil that you can sieve and use for sowing seeds.</p>",
  };
  return { props: { post } };
}

export default function LeafMould({ post }) {
  return (
    <>
      <Head><title>{`${post.title} | Riverside Gardening Club`}</title></Head>
      <Article post={post} />
    </>
  );
}
