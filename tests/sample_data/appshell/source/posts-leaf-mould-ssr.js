import Head from "next/head";
import Article from "../../components/Article";
import { getStaticProps as leafMould } from "./leaf-mould";

// The same post rendered on the server: the static HTML shows it.
export const getStaticProps = leafMould;

export default function LeafMouldServer({ post }) {
  return (
    <>
      <Head><title>{`${post.title} | Riverside Gardening Club`}</title></Head>
      <Article post={post} />
    </>
  );
}
